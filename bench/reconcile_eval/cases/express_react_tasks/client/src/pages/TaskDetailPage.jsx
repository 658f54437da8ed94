import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { tasksApi } from '../api';
import AssigneeSelect from '../components/AssigneeSelect';
import CommentThread from '../components/CommentThread';
import LabelPicker from '../components/LabelPicker';

export default function TaskDetailPage() {
  const { taskId } = useParams();
  const navigate = useNavigate();
  const [task, setTask] = useState(null);
  const [draft, setDraft] = useState(null);
  const [error, setError] = useState(null);

  useEffect(() => {
    tasksApi.get(taskId).then((t) => { setTask(t); setDraft(t); }).catch((err) => setError(err.message));
  }, [taskId]);

  if (error) return <p role="alert" className="error">{error}</p>;
  if (!task) return <p className="empty">Loading…</p>;

  const field = (key) => ({ value: draft[key] ?? '', onChange: (e) => setDraft({ ...draft, [key]: e.target.value }) });

  async function save(e) {
    e.preventDefault();
    const { title, description, dueDate, status } = draft;
    const updated = await tasksApi.update(task.id, { title, description, dueDate: dueDate || null, status });
    setTask(updated);
    setDraft(updated);
  }

  async function remove() {
    if (!window.confirm('Delete this task?')) return;
    await tasksApi.remove(task.id);
    navigate('/tasks');
  }

  return (
    <article className="task-detail">
      <form onSubmit={save}>
        <input className="title" aria-label="Title" {...field('title')} />
        <textarea aria-label="Description" {...field('description')} />
        <input type="date" aria-label="Due date" {...field('dueDate')} />
        <select aria-label="Status" {...field('status')}>
          <option value="todo">To do</option>
          <option value="in_progress">In progress</option>
          <option value="done">Done</option>
        </select>
        <button type="submit">Save changes</button>
        <button type="button" className="danger" onClick={remove}>Delete</button>
      </form>
      <AssigneeSelect value={task.assigneeId} onChange={async (id) => setTask(await tasksApi.assign(task.id, id))} />
      <LabelPicker
        labels={task.labels}
        onAdd={async (label) => setTask(await tasksApi.addLabel(task.id, label))}
        onRemove={async (label) => setTask(await tasksApi.removeLabel(task.id, label))}
      />
      <CommentThread taskId={task.id} />
    </article>
  );
}
