import { useEffect, useState } from 'react';
import { api } from '../api';

export default function AssigneeSelect({ value, onChange }) {
  const [people, setPeople] = useState([]);

  useEffect(() => {
    api('/users').then(setPeople).catch(() => setPeople([]));
  }, []);

  return (
    <label className="assignee-select">
      Assignee
      <select value={value ?? ''} onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}>
        <option value="">Unassigned</option>
        {people.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
      </select>
    </label>
  );
}
