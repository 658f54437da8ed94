const nodemailer = require('nodemailer');
const config = require('../config');

// With no SMTP host configured (dev, tests) mail is kept in memory.
const outbox = [];

const transport = config.smtp.host
  ? nodemailer.createTransport({ host: config.smtp.host, port: config.smtp.port })
  : null;

async function sendMail({ to, subject, text }) {
  const message = { from: config.smtp.from, to, subject, text };
  if (!transport) {
    outbox.push(message);
    return { queued: true };
  }
  return transport.sendMail(message);
}

module.exports = { sendMail, outbox };
