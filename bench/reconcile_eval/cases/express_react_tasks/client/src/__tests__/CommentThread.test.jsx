import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import CommentThread from '../components/CommentThread';

function fakeClient() {
  return {
    comments: vi.fn().mockResolvedValue([
      { id: 1, authorName: 'Ada', body: 'Looks good', createdAt: '2024-05-01T10:00:00Z' },
    ]),
    addComment: vi.fn().mockImplementation(async (taskId, body) => ({
      id: 2, authorName: 'Bob', body, createdAt: '2024-05-02T10:00:00Z',
    })),
  };
}

describe('CommentThread', () => {
  it('lists comments and posts a new one', async () => {
    const client = fakeClient();
    render(<CommentThread taskId={5} client={client} />);
    expect(await screen.findByText('Looks good')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Comment'), { target: { value: 'Merged!' } });
    fireEvent.click(screen.getByRole('button', { name: 'Comment' }));
    await waitFor(() => expect(screen.getByText('Merged!')).toBeTruthy());
    expect(client.addComment).toHaveBeenCalledWith(5, 'Merged!');
    expect(screen.getByText('Comments (2)')).toBeTruthy();
  });
});
