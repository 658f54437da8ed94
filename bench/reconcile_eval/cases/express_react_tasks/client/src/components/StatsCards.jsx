const CARDS = [
  { key: 'open', title: 'Open', tone: 'neutral' },
  { key: 'overdue', title: 'Overdue', tone: 'danger' },
  { key: 'done', title: 'Done', tone: 'success' },
];

export default function StatsCards({ stats }) {
  if (!stats) return <p className="empty">Loading numbers…</p>;
  const percent = stats.total ? Math.round((stats.done / stats.total) * 100) : 0;
  return (
    <div className="stats-cards">
      {CARDS.map(({ key, title, tone }) => (
        <article key={key} className={`card ${tone}`} aria-label={title}>
          <h2>{stats[key]}</h2>
          <p>{title}</p>
        </article>
      ))}
      <p className="completion">{percent}% of all tasks done</p>
    </div>
  );
}
