import { useEffect, useState } from 'react';
import { api } from '../api';

export default function ProjectsPage() {
  const [projects, setProjects] = useState([]);
  const [name, setName] = useState('');
  const [color, setColor] = useState('#4f46e5');
  const [error, setError] = useState(null);

  useEffect(() => {
    api('/projects').then(setProjects);
  }, []);

  async function create(e) {
    e.preventDefault();
    try {
      const project = await api('/projects', { method: 'POST', body: { name, color } });
      setProjects((list) => [...list, project]);
      setName('');
      setError(null);
    } catch (err) {
      setError(err.message);
    }
  }

  return (
    <section className="projects">
      <h1>Projects</h1>
      <form onSubmit={create}>
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Project name" aria-label="Project name" />
        <input type="color" value={color} onChange={(e) => setColor(e.target.value)} aria-label="Colour" />
        <button type="submit">Create project</button>
      </form>
      {error && <p role="alert" className="error">{error}</p>}
      <ul>
        {projects.map((p) => (
          <li key={p.id}>
            <span className="swatch" style={{ background: p.color }} />
            {p.name} <small>{p.doneCount}/{p.taskCount} done</small>
          </li>
        ))}
      </ul>
    </section>
  );
}
