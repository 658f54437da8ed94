import { Link } from 'react-router-dom';

function dueLabel(dueDate, today = new Date().toISOString().slice(0, 10)) {
  if (!dueDate) return null;
  if (dueDate < today) return { text: `Overdue · ${dueDate}`, className: 'due overdue' };
  if (dueDate === today) return { text: 'Due today', className: 'due today' };
  return { text: `Due ${dueDate}`, className: 'due' };
}

export default function TaskItem({ task, onToggle, onDelete }) {
  const done = task.status === 'done';
  const due = done ? null : dueLabel(task.dueDate);

  const handleDelete = () => {
    if (window.confirm(`Delete "${task.title}"?`)) onDelete(task.id);
  };

  return (
    <li className={done ? 'task-item done' : 'task-item'}>
      <input
        type="checkbox"
        checked={done}
        onChange={() => onToggle(task.id, done ? 'todo' : 'done')}
        aria-label={done ? `Reopen ${task.title}` : `Complete ${task.title}`}
      />
      <Link to={`/tasks/${task.id}`} className="task-title">{task.title}</Link>
      {task.labels.map((label) => <span key={label} className="label-chip">{label}</span>)}
      {due && <span className={due.className}>{due.text}</span>}
      <button type="button" className="icon danger" onClick={handleDelete} aria-label={`Delete ${task.title}`}>
        ✕
      </button>
    </li>
  );
}
