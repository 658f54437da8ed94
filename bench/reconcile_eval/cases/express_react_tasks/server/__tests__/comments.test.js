const { setup, signUp } = require('./helpers');

test('posts and lists comments on a task', async () => {
  const { api } = await setup();
  const ada = await signUp(api, 'Ada');
  const task = (await api.post('/api/tasks').set(ada.auth).send({ title: 'discuss' })).body;
  await api.post(`/api/tasks/${task.id}/comments`).set(ada.auth).send({ body: 'first!' }).expect(201);
  await api.post(`/api/tasks/${task.id}/comments`).set(ada.auth).send({ body: '   ' }).expect(422);
  const res = await api.get(`/api/tasks/${task.id}/comments`).set(ada.auth);
  expect(res.body).toHaveLength(1);
  expect(res.body[0]).toMatchObject({ body: 'first!', authorName: 'Ada' });
});

test('cannot comment on somebody else\'s task', async () => {
  const { api } = await setup();
  const ada = await signUp(api, 'Ada');
  const eve = await signUp(api, 'Eve');
  const task = (await api.post('/api/tasks').set(ada.auth).send({ title: 'private' })).body;
  await api.post(`/api/tasks/${task.id}/comments`).set(eve.auth).send({ body: 'hi' }).expect(404);
});
