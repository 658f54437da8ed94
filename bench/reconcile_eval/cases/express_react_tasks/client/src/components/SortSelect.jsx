export const SORT_OPTIONS = [
  { value: 'created', label: 'Newest first' },
  { value: 'dueDate', label: 'Due date' },
  { value: 'title', label: 'Title (A–Z)' },
];

export default function SortSelect({ value, onChange }) {
  return (
    <label className="sort-select">
      Sort by
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {SORT_OPTIONS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </label>
  );
}
