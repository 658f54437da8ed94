const { setup, signUp } = require('./helpers');
const { db } = require('../db');

test('creates a project and counts its tasks', async () => {
  const { api } = await setup();
  const ada = await signUp(api, 'Ada');
  const project = (await api.post('/api/projects').set(ada.auth).send({ name: 'Website' })).body;
  await api.post('/api/tasks').set(ada.auth).send({ title: 'hero image', projectId: project.id });
  const res = await api.get('/api/projects').set(ada.auth);
  expect(res.body).toEqual([expect.objectContaining({ name: 'Website', taskCount: 1, doneCount: 0 })]);
  await api.post('/api/projects').set(ada.auth).send({ name: 'website' }).expect(409);
});

test('hides archived projects from the list', async () => {
  const { api } = await setup();
  const ada = await signUp(api, 'Ada');
  const project = (await api.post('/api/projects').set(ada.auth).send({ name: 'Old' })).body;
  db.projects.find((p) => p.id === project.id).archived = true;
  const res = await api.get('/api/projects').set(ada.auth);
  expect(res.body).toEqual([]);
});
