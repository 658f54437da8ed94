const { setup, signUp } = require('./helpers');
const { outbox } = require('../services/mailer');

let api;
beforeEach(async () => {
  ({ api } = await setup());
  outbox.length = 0;
});

describe('signup and login', () => {
  test('signs up a new user and returns a token', async () => {
    const res = await api.post('/api/auth/signup').send({ name: 'Ada', email: 'Ada@Example.com', password: 'hunter2hunter2' });
    expect(res.status).toBe(201);
    expect(res.body.user.email).toBe('ada@example.com');
    expect(res.body.user.passwordHash).toBeUndefined();
  });

  test('rejects a duplicate email', async () => {
    await signUp(api, 'Ada');
    const res = await api.post('/api/auth/signup').send({ name: 'Other', email: 'ada@example.com', password: 'hunter2hunter2' });
    expect(res.status).toBe(409);
  });

  test('logs in with the right password only', async () => {
    await signUp(api, 'Ada');
    const ok = await api.post('/api/auth/login').send({ email: 'ada@example.com', password: 'hunter2hunter2' });
    const bad = await api.post('/api/auth/login').send({ email: 'ada@example.com', password: 'wrong' });
    expect(ok.status).toBe(200);
    expect(ok.body.token).toBeTruthy();
    expect(bad.status).toBe(401);
  });
});

describe('password reset', () => {
  test('emails a reset link and accepts the new password', async () => {
    await signUp(api, 'Ada');
    await api.post('/api/auth/forgot-password').send({ email: 'ada@example.com' }).expect(202);
    const token = outbox[0].text.match(/token=([a-f0-9]+)/)[1];
    await api.post('/api/auth/reset-password').send({ token, password: 'new-password-1' }).expect(204);
    await api.post('/api/auth/login').send({ email: 'ada@example.com', password: 'new-password-1' }).expect(200);
  });

  test('does not reveal unknown emails', async () => {
    await api.post('/api/auth/forgot-password').send({ email: 'nobody@example.com' }).expect(202);
    expect(outbox).toHaveLength(0);
  });
});
