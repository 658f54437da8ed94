module.exports = {
  port: Number(process.env.PORT || 4000),
  appUrl: process.env.APP_URL || 'http://localhost:5173',
  // HMAC secret shared by every API instance to sign and verify session tokens.
  JWT_SHARED_SECRET: process.env.JWT_SHARED_SECRET || 'dev-only-secret',
  tokenTtl: '7d',
  resetTokenMinutes: 30,
  invitationDays: 7,
  smtp: {
    host: process.env.SMTP_HOST || '',
    port: Number(process.env.SMTP_PORT || 587),
    from: process.env.MAIL_FROM || 'Taskboard <no-reply@taskboard.dev>',
  },
};
