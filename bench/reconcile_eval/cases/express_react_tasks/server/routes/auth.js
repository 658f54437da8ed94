const crypto = require('crypto');
const express = require('express');
const bcrypt = require('bcryptjs');
const config = require('../config');
const { db, nextId, findById } = require('../db');
const { signToken, publicUser } = require('../middleware/auth');
const { HttpError, asyncHandler } = require('../middleware/errors');
const { sendMail } = require('../services/mailer');

const router = express.Router();
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const sha256 = (value) => crypto.createHash('sha256').update(value).digest('hex');

router.post('/signup', asyncHandler(async (req, res) => {
  const { name, email, password } = req.body;
  if (!name || !EMAIL_RE.test(email || '')) throw new HttpError(422, 'Name and a valid email are required');
  if (!password || password.length < 8) throw new HttpError(422, 'Password must be at least 8 characters');
  const normalized = email.trim().toLowerCase();
  if (db.users.some((u) => u.email === normalized)) throw new HttpError(409, 'Email already registered');
  const user = {
    id: nextId(),
    name: name.trim(),
    email: normalized,
    avatarUrl: null,
    passwordHash: await bcrypt.hash(password, 10),
    createdAt: new Date().toISOString(),
  };
  db.users.push(user);
  res.status(201).json({ token: signToken(user), user: publicUser(user) });
}));

router.post('/login', asyncHandler(async (req, res) => {
  const { email, password } = req.body;
  const user = db.users.find((u) => u.email === String(email || '').trim().toLowerCase());
  const ok = user && (await bcrypt.compare(password || '', user.passwordHash));
  if (!ok) throw new HttpError(401, 'Wrong email or password');
  res.json({ token: signToken(user), user: publicUser(user) });
}));

router.post('/forgot-password', asyncHandler(async (req, res) => {
  const user = db.users.find((u) => u.email === String(req.body.email || '').trim().toLowerCase());
  if (user) {
    const token = crypto.randomBytes(24).toString('hex');
    db.resetTokens.push({
      id: nextId(),
      userId: user.id,
      hash: sha256(token),
      expiresAt: Date.now() + config.resetTokenMinutes * 60 * 1000,
    });
    await sendMail({
      to: user.email,
      subject: 'Reset your Taskboard password',
      text: `Choose a new password here: ${config.appUrl}/reset-password?token=${token}\n`
        + `The link expires in ${config.resetTokenMinutes} minutes.`,
    });
  }
  res.status(202).json({ message: 'If that email exists, a reset link was sent.' });
}));

router.post('/reset-password', asyncHandler(async (req, res) => {
  const { token, password } = req.body;
  const record = db.resetTokens.find((t) => t.hash === sha256(String(token || '')));
  if (!record || record.expiresAt < Date.now()) throw new HttpError(400, 'Reset link is invalid or expired');
  if (!password || password.length < 8) throw new HttpError(422, 'Password must be at least 8 characters');
  const user = findById('users', record.userId);
  user.passwordHash = await bcrypt.hash(password, 10);
  db.resetTokens = db.resetTokens.filter((t) => t.userId !== user.id);
  res.status(204).end();
}));

module.exports = router;
