#!/usr/bin/env node
// Export tasks from the Taskboard API as CSV.
//
//   node scripts/export-tasks.js --token $TOKEN [--project 12] [--status done] [--file tasks.csv]
//
// Writes to stdout unless --file is given.
const fs = require('fs');

const COLUMNS = ['id', 'title', 'status', 'dueDate', 'assigneeId', 'projectId', 'labels', 'createdAt', 'completedAt'];

function parseArgs(argv) {
  const args = { api: process.env.TASKBOARD_API || 'http://localhost:4000', token: process.env.TASKBOARD_TOKEN };
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i].replace(/^--/, '');
    if (['api', 'token', 'project', 'status', 'file'].includes(key)) {
      args[key] = argv[i + 1];
      i += 1;
    } else {
      throw new Error(`Unknown option ${argv[i]}`);
    }
  }
  if (!args.token) throw new Error('Missing --token (or TASKBOARD_TOKEN)');
  return args;
}

function csvCell(value) {
  if (value === null || value === undefined) return '';
  const text = Array.isArray(value) ? value.join('|') : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function tasksToCsv(tasks) {
  const lines = [COLUMNS.join(',')];
  for (const task of tasks) lines.push(COLUMNS.map((col) => csvCell(task[col])).join(','));
  return `${lines.join('\n')}\n`;
}

async function fetchTasks({ api, token, project, status }) {
  const query = new URLSearchParams();
  if (project) query.set('projectId', project);
  if (status) query.set('status', status);
  const res = await fetch(`${api}/api/tasks?${query}`, { headers: { Authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`API answered ${res.status}: ${await res.text()}`);
  return res.json();
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const csv = tasksToCsv(await fetchTasks(args));
  if (args.file) {
    fs.writeFileSync(args.file, csv);
    console.error(`wrote ${csv.split('\n').length - 2} tasks to ${args.file}`);
  } else {
    process.stdout.write(csv);
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}

module.exports = { parseArgs, tasksToCsv, csvCell };
