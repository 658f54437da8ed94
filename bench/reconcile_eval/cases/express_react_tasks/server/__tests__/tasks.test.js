const { setup, signUp } = require('./helpers');

let api;
let ada;
beforeEach(async () => {
  ({ api } = await setup());
  ada = await signUp(api, 'Ada');
});

const create = (who, body) => api.post('/api/tasks').set(who.auth).send(body);

test('creates a task with title, description and due date', async () => {
  const res = await create(ada, { title: ' Ship v1 ', description: 'all the things', dueDate: '2030-01-31' });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ title: 'Ship v1', status: 'todo', dueDate: '2030-01-31', labels: [] });
});

test('rejects a task without a title', async () => {
  const res = await create(ada, { title: '   ' });
  expect(res.status).toBe(422);
  expect(res.body.details.title).toBe('Title is required');
});

test('lists only my tasks', async () => {
  const bob = await signUp(api, 'Bob');
  await create(ada, { title: 'mine' });
  await create(bob, { title: 'not mine' });
  const res = await api.get('/api/tasks').set(ada.auth);
  expect(res.body.map((t) => t.title)).toEqual(['mine']);
});

test('filters tasks by status and assignee', async () => {
  const a = (await create(ada, { title: 'a' })).body;
  await create(ada, { title: 'b' });
  await api.patch(`/api/tasks/${a.id}`).set(ada.auth).send({ status: 'done' });
  await api.patch(`/api/tasks/${a.id}/assign`).set(ada.auth).send({ assigneeId: ada.user.id });
  const done = await api.get('/api/tasks?status=done').set(ada.auth);
  const unassigned = await api.get('/api/tasks?assignee=none').set(ada.auth);
  expect(done.body.map((t) => t.title)).toEqual(['a']);
  expect(unassigned.body.map((t) => t.title)).toEqual(['b']);
});

test('marks a task complete', async () => {
  const task = (await create(ada, { title: 'finish' })).body;
  const res = await api.patch(`/api/tasks/${task.id}`).set(ada.auth).send({ status: 'done', title: 'finished' });
  expect(res.body.status).toBe('done');
  expect(res.body.completedAt).toBeTruthy();
});

test('deletes a task', async () => {
  const task = (await create(ada, { title: 'gone soon' })).body;
  await api.delete(`/api/tasks/${task.id}`).set(ada.auth).expect(204);
  await api.get(`/api/tasks/${task.id}`).set(ada.auth).expect(404);
});

test('adds and removes labels', async () => {
  const task = (await create(ada, { title: 'labelled' })).body;
  await api.post(`/api/tasks/${task.id}/labels`).set(ada.auth).send({ label: 'Bug' }).expect(201);
  await api.post(`/api/tasks/${task.id}/labels`).set(ada.auth).send({ label: 'not a label!' }).expect(422);
  const res = await api.delete(`/api/tasks/${task.id}/labels/bug`).set(ada.auth);
  expect(res.body.labels).toEqual([]);
});

test('assigns a task to a teammate', async () => {
  const bob = await signUp(api, 'Bob');
  const task = (await create(ada, { title: 'review PR' })).body;
  const res = await api.patch(`/api/tasks/${task.id}/assign`).set(ada.auth).send({ assigneeId: bob.user.id });
  expect(res.body.assigneeId).toBe(bob.user.id);
  const bobs = await api.get('/api/tasks?assignee=me').set(bob.auth);
  expect(bobs.body.map((t) => t.title)).toEqual(['review PR']);
});
