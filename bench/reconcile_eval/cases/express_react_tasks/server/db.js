// A tiny in-memory store. Swapped for Postgres in production via the same
// collection interface (see docs/deploy.md); tests call reset() between cases.

const collections = [
  'users', 'tasks', 'comments', 'projects', 'workspaces',
  'invitations', 'notifications', 'activity', 'resetTokens',
];

const db = {};
let seq = 0;

function reset() {
  for (const name of collections) db[name] = [];
  seq = 0;
}

function nextId() {
  seq += 1;
  return seq;
}

function findById(collection, id) {
  return db[collection].find((row) => row.id === Number(id)) || null;
}

function remove(collection, id) {
  const index = db[collection].findIndex((row) => row.id === Number(id));
  if (index === -1) return false;
  db[collection].splice(index, 1);
  return true;
}

reset();

module.exports = { db, reset, nextId, findById, remove };
