import { useState } from 'react';

const SUGGESTED = ['bug', 'feature', 'chore', 'urgent', 'blocked'];

export default function LabelPicker({ labels, onAdd, onRemove }) {
  const [draft, setDraft] = useState('');
  const suggestions = SUGGESTED.filter((s) => !labels.includes(s));

  const submit = (e) => {
    e.preventDefault();
    const name = draft.trim().toLowerCase();
    if (name) onAdd(name);
    setDraft('');
  };

  return (
    <div className="label-picker">
      <ul>
        {labels.map((label) => (
          <li key={label} className="label-chip">
            {label}
            <button type="button" onClick={() => onRemove(label)} aria-label={`Remove label ${label}`}>×</button>
          </li>
        ))}
      </ul>
      <form onSubmit={submit}>
        <input value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Add label" list="label-suggestions" />
        <datalist id="label-suggestions">
          {suggestions.map((s) => <option key={s} value={s} />)}
        </datalist>
      </form>
    </div>
  );
}
