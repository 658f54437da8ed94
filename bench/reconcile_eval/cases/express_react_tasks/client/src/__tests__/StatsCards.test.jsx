import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import StatsCards from '../components/StatsCards';

describe('StatsCards', () => {
  it('renders task counts', () => {
    render(<StatsCards stats={{ open: 4, overdue: 1, done: 6, total: 10 }} />);
    expect(screen.getByLabelText('Open').textContent).toContain('4');
    expect(screen.getByLabelText('Overdue').textContent).toContain('1');
    expect(screen.getByLabelText('Done').textContent).toContain('6');
    expect(screen.getByText('60% of all tasks done')).toBeTruthy();
  });

  it('shows a placeholder while loading', () => {
    render(<StatsCards stats={null} />);
    expect(screen.getByText('Loading numbers…')).toBeTruthy();
  });
});
