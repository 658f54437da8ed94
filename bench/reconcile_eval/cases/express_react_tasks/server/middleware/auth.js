const jwt = require('jsonwebtoken');
const config = require('../config');
const { findById } = require('../db');
const { HttpError } = require('./errors');

function signToken(user) {
  return jwt.sign({ sub: user.id }, config.JWT_SHARED_SECRET, { expiresIn: config.tokenTtl });
}

// Attaches req.user when a valid bearer token is present; never rejects.
function attachAuthUser(req, res, next) {
  const header = req.get('authorization') || '';
  const [scheme, token] = header.split(' ');
  if (scheme === 'Bearer' && token) {
    try {
      const payload = jwt.verify(token, config.JWT_SHARED_SECRET);
      req.user = findById('users', payload.sub);
    } catch (err) {
      req.user = null;
    }
  }
  next();
}

function requireAuth(req, res, next) {
  if (!req.user) return next(new HttpError(401, 'Sign in first'));
  return next();
}

function publicUser(user) {
  const { passwordHash, ...rest } = user;
  return rest;
}

module.exports = { signToken, attachAuthUser, requireAuth, publicUser };
