import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import TaskItem from '../components/TaskItem';

const task = { id: 7, title: 'Pay invoice', status: 'todo', labels: ['finance'], dueDate: '2000-01-01' };

const renderItem = (props) => render(
  <MemoryRouter>
    <TaskItem task={task} onToggle={vi.fn()} onDelete={vi.fn()} {...props} />
  </MemoryRouter>,
);

describe('TaskItem', () => {
  it('marks a task complete from the checkbox', () => {
    const onToggle = vi.fn();
    renderItem({ onToggle });
    fireEvent.click(screen.getByLabelText('Complete Pay invoice'));
    expect(onToggle).toHaveBeenCalledWith(7, 'done');
  });

  it('shows overdue tasks and their labels', () => {
    renderItem();
    expect(screen.getByText(/Overdue/)).toBeTruthy();
    expect(screen.getByText('finance')).toBeTruthy();
  });

  it('deletes after confirmation', () => {
    const onDelete = vi.fn();
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    renderItem({ onDelete });
    fireEvent.click(screen.getByLabelText('Delete Pay invoice'));
    expect(onDelete).toHaveBeenCalledWith(7);
  });
});
