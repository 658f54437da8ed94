const crypto = require('crypto');
const express = require('express');
const config = require('../config');
const { db, nextId, findById } = require('../db');
const { requireAuth } = require('../middleware/auth');
const { HttpError, asyncHandler } = require('../middleware/errors');
const { sendMail } = require('../services/mailer');

const router = express.Router();
router.use(requireAuth);

router.post('/', (req, res) => {
  const name = String(req.body.name || '').trim();
  if (!name) throw new HttpError(422, 'Workspace name is required');
  const workspace = { id: nextId(), name, ownerId: req.user.id, memberIds: [req.user.id] };
  db.workspaces.push(workspace);
  res.status(201).json(workspace);
});

router.post('/:id/invitations', asyncHandler(async (req, res) => {
  const workspace = findById('workspaces', req.params.id);
  if (!workspace || workspace.ownerId !== req.user.id) throw new HttpError(404, 'Workspace not found');
  const email = String(req.body.email || '').trim().toLowerCase();
  if (!email.includes('@')) throw new HttpError(422, 'A valid email is required');
  if (db.invitations.some((i) => i.workspaceId === workspace.id && i.email === email)) {
    throw new HttpError(409, 'Already invited');
  }
  const invitation = {
    id: nextId(),
    workspaceId: workspace.id,
    email,
    token: crypto.randomBytes(16).toString('hex'),
    invitedBy: req.user.id,
    expiresAt: new Date(Date.now() + config.invitationDays * 864e5).toISOString(),
  };
  db.invitations.push(invitation);
  await sendMail({
    to: email,
    subject: `${req.user.name} invited you to ${workspace.name} on Taskboard`,
    text: `Join the workspace: ${config.appUrl}/join/${invitation.token}`,
  });
  res.status(201).json({ id: invitation.id, email, expiresAt: invitation.expiresAt });
}));

module.exports = router;
