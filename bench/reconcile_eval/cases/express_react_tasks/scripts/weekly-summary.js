#!/usr/bin/env node
// Prints what each person finished in the last seven days.
//
//   node scripts/weekly-summary.js --token $TOKEN [--days 7]
//
// TODO: e-mail the summary to team leads every Monday (needs a lead role first).

const DAY_MS = 24 * 60 * 60 * 1000;

function summarise(tasks, users, now = new Date(), days = 7) {
  const since = now.getTime() - days * DAY_MS;
  const names = new Map(users.map((u) => [u.id, u.name]));
  const byPerson = new Map();
  for (const task of tasks) {
    if (task.status !== 'done' || !task.completedAt) continue;
    if (Date.parse(task.completedAt) < since) continue;
    const who = names.get(task.assigneeId || task.ownerId) || 'Unknown';
    if (!byPerson.has(who)) byPerson.set(who, []);
    byPerson.get(who).push(task.title);
  }
  return [...byPerson.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, titles]) => ({ name, count: titles.length, titles }));
}

function formatSummary(rows, days = 7) {
  if (rows.length === 0) return `Nothing was completed in the last ${days} days.`;
  const lines = [`Completed in the last ${days} days:`];
  for (const row of rows) {
    lines.push(`\n${row.name} (${row.count})`);
    for (const title of row.titles) lines.push(`  - ${title}`);
  }
  return lines.join('\n');
}

async function main() {
  const argv = process.argv.slice(2);
  const token = argv[argv.indexOf('--token') + 1] || process.env.TASKBOARD_TOKEN;
  const days = argv.includes('--days') ? Number(argv[argv.indexOf('--days') + 1]) : 7;
  const api = process.env.TASKBOARD_API || 'http://localhost:4000';
  const headers = { Authorization: `Bearer ${token}` };
  const [tasks, users] = await Promise.all([
    fetch(`${api}/api/tasks?status=done`, { headers }).then((r) => r.json()),
    fetch(`${api}/api/users`, { headers }).then((r) => r.json()),
  ]);
  console.log(formatSummary(summarise(tasks, users, new Date(), days), days));
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

module.exports = { summarise, formatSummary };
