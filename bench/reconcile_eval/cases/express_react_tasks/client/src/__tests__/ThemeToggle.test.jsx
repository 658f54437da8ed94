import { fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import ThemeToggle from '../components/ThemeToggle';
import { ThemeProvider } from '../theme/ThemeContext';

describe('ThemeToggle', () => {
  beforeEach(() => localStorage.clear());

  it('switches between light and dark and remembers the choice', () => {
    localStorage.setItem('taskboard.theme', 'light');
    render(<ThemeProvider><ThemeToggle /></ThemeProvider>);
    fireEvent.click(screen.getByRole('button', { name: 'Switch to dark theme' }));
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(localStorage.getItem('taskboard.theme')).toBe('dark');
    expect(screen.getByRole('button', { name: 'Switch to light theme' })).toBeTruthy();
  });
});
