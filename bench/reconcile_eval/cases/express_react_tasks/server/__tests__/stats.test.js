const { setup, signUp } = require('./helpers');

test('counts open, overdue and done tasks', async () => {
  const { api } = await setup();
  const ada = await signUp(api, 'Ada');
  const post = (body) => api.post('/api/tasks').set(ada.auth).send(body);
  await post({ title: 'late', dueDate: '2001-01-01' });
  await post({ title: 'future', dueDate: '2999-01-01' });
  const done = (await post({ title: 'done' })).body;
  await api.patch(`/api/tasks/${done.id}`).set(ada.auth).send({ status: 'done' });
  const res = await api.get('/api/stats').set(ada.auth);
  expect(res.body).toEqual({ open: 2, overdue: 1, done: 1, total: 3 });
});

test('requires a session', async () => {
  const { api } = await setup();
  await api.get('/api/stats').expect(401);
});
