const request = require('supertest');
const { createApp } = require('../app');
const { reset } = require('../db');

async function setup() {
  reset();
  const app = createApp();
  return { app, api: request(app) };
}

async function signUp(api, name = 'Ada', email = `${name.toLowerCase()}@example.com`) {
  const res = await api.post('/api/auth/signup').send({ name, email, password: 'hunter2hunter2' });
  return { token: res.body.token, user: res.body.user, auth: { Authorization: `Bearer ${res.body.token}` } };
}

module.exports = { setup, signUp };
