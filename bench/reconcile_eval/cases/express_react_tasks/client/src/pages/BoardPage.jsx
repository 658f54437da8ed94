import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { tasksApi } from '../api';

const COLUMNS = [
  { status: 'todo', title: 'To do' },
  { status: 'in_progress', title: 'In progress' },
  { status: 'done', title: 'Done' },
];

// Kanban overview. Cards are grouped by status; moving a card is done from the task page for now.
export default function BoardPage() {
  const [tasks, setTasks] = useState([]);

  useEffect(() => {
    tasksApi.list().then(setTasks);
  }, []);

  return (
    <section className="board">
      <h1>Board</h1>
      <div className="columns">
        {COLUMNS.map((col) => {
          const cards = tasks.filter((t) => t.status === col.status);
          return (
            <div key={col.status} className="column">
              <h2>{col.title} <span className="count">{cards.length}</span></h2>
              {cards.map((task) => (
                <Link key={task.id} to={`/tasks/${task.id}`} className="card">
                  {task.title}
                  {task.dueDate && <small>{task.dueDate}</small>}
                </Link>
              ))}
            </div>
          );
        })}
      </div>
    </section>
  );
}
