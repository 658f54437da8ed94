import { useEffect, useState } from 'react';
import { tasksApi } from '../api';

export default function CommentThread({ taskId, client = tasksApi }) {
  const [comments, setComments] = useState([]);
  const [body, setBody] = useState('');
  const [error, setError] = useState(null);

  useEffect(() => {
    let cancelled = false;
    client.comments(taskId).then((list) => !cancelled && setComments(list));
    return () => { cancelled = true; };
  }, [taskId, client]);

  async function post(e) {
    e.preventDefault();
    if (!body.trim()) return;
    try {
      const comment = await client.addComment(taskId, body);
      setComments((list) => [...list, comment]);
      setBody('');
      setError(null);
    } catch (err) {
      setError(err.message);
    }
  }

  return (
    <section className="comments">
      <h3>Comments ({comments.length})</h3>
      <ol>
        {comments.map((c) => (
          <li key={c.id}>
            <strong>{c.authorName}</strong> <time dateTime={c.createdAt}>{new Date(c.createdAt).toLocaleString()}</time>
            <p>{c.body}</p>
          </li>
        ))}
      </ol>
      <form onSubmit={post}>
        <textarea value={body} onChange={(e) => setBody(e.target.value)} placeholder="Write a comment" aria-label="Comment" />
        <button type="submit">Comment</button>
      </form>
      {error && <p role="alert" className="error">{error}</p>}
    </section>
  );
}
