const { setup, signUp } = require('./helpers');
const { outbox } = require('../services/mailer');

let api;
beforeEach(async () => ({ api } = await setup()));

test('updates name and avatar', async () => {
  const { auth } = await signUp(api, 'Ada');
  const res = await api.put('/api/users/me').set(auth).send({ name: 'Ada L.', avatarUrl: 'https://img.example.com/ada.png' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ name: 'Ada L.', avatarUrl: 'https://img.example.com/ada.png' });
});

test('refuses a non-https avatar', async () => {
  const { auth } = await signUp(api, 'Ada');
  await api.put('/api/users/me').set(auth).send({ avatarUrl: 'http://insecure/x.png' }).expect(422);
});

test('lists notifications for assigned tasks', async () => {
  const ada = await signUp(api, 'Ada');
  const bob = await signUp(api, 'Bob');
  const task = (await api.post('/api/tasks').set(ada.auth).send({ title: 'Write docs' })).body;
  await api.patch(`/api/tasks/${task.id}/assign`).set(ada.auth).send({ assigneeId: bob.user.id }).expect(200);
  const res = await api.get('/api/notifications').set(bob.auth);
  expect(res.body.unread).toBe(1);
  expect(res.body.items[0].message).toBe('Ada assigned you "Write docs"');
});

test('invites a teammate by email', async () => {
  outbox.length = 0;
  const ada = await signUp(api, 'Ada');
  const ws = (await api.post('/api/workspaces').set(ada.auth).send({ name: 'Acme' })).body;
  const res = await api.post(`/api/workspaces/${ws.id}/invitations`).set(ada.auth).send({ email: 'bob@example.com' });
  expect(res.status).toBe(201);
  expect(outbox[0]).toMatchObject({ to: 'bob@example.com', subject: 'Ada invited you to Acme on Taskboard' });
  await api.post(`/api/workspaces/${ws.id}/invitations`).set(ada.auth).send({ email: 'bob@example.com' }).expect(409);
});
