import { useState } from 'react';

const EMPTY = { title: '', description: '', dueDate: '' };

export default function NewTaskForm({ onCreate }) {
  const [fields, setFields] = useState(EMPTY);
  const [error, setError] = useState(null);
  const [saving, setSaving] = useState(false);

  const set = (key) => (e) => setFields({ ...fields, [key]: e.target.value });

  async function handleSubmit(e) {
    e.preventDefault();
    if (!fields.title.trim()) {
      setError('Give the task a title');
      return;
    }
    setSaving(true);
    try {
      await onCreate({ ...fields, dueDate: fields.dueDate || null });
      setFields(EMPTY);
      setError(null);
    } catch (err) {
      setError(err.message);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form className="new-task" onSubmit={handleSubmit}>
      <input placeholder="What needs doing?" value={fields.title} onChange={set('title')} aria-label="Title" />
      <textarea placeholder="Details (optional)" value={fields.description} onChange={set('description')} aria-label="Description" />
      <input type="date" value={fields.dueDate} onChange={set('dueDate')} aria-label="Due date" />
      <button type="submit" disabled={saving}>{saving ? 'Adding…' : 'Add task'}</button>
      {error && <p role="alert" className="error">{error}</p>}
    </form>
  );
}
