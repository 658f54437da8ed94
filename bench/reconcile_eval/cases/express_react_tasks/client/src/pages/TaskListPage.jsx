import { useEffect, useMemo, useState } from 'react';
import { tasksApi } from '../api';
import NewTaskForm from '../components/NewTaskForm';
import SortSelect from '../components/SortSelect';
import TaskItem from '../components/TaskItem';
import { sortTasks } from '../utils/sortTasks';

export default function TaskListPage() {
  const [tasks, setTasks] = useState([]);
  const [sortBy, setSortBy] = useState(() => localStorage.getItem('taskboard.sort') || 'created');
  const [error, setError] = useState(null);

  useEffect(() => {
    tasksApi.list().then(setTasks).catch((err) => setError(err.message));
  }, []);

  useEffect(() => localStorage.setItem('taskboard.sort', sortBy), [sortBy]);

  const sorted = useMemo(() => sortTasks(tasks, sortBy), [tasks, sortBy]);

  const create = async (fields) => {
    const task = await tasksApi.create(fields);
    setTasks((list) => [task, ...list]);
  };

  const toggle = async (id, status) => {
    const updated = await tasksApi.update(id, { status });
    setTasks((list) => list.map((t) => (t.id === id ? updated : t)));
  };

  const remove = async (id) => {
    await tasksApi.remove(id);
    setTasks((list) => list.filter((t) => t.id !== id));
  };

  return (
    <section>
      <h1>My tasks</h1>
      <NewTaskForm onCreate={create} />
      <SortSelect value={sortBy} onChange={setSortBy} />
      {error && <p role="alert" className="error">{error}</p>}
      {sorted.length === 0 ? (
        <p className="empty">Nothing to do. Enjoy!</p>
      ) : (
        <ul className="task-list">
          {sorted.map((task) => <TaskItem key={task.id} task={task} onToggle={toggle} onDelete={remove} />)}
        </ul>
      )}
    </section>
  );
}
