const { computeStats } = require('../services/taskService');

// GET /api/stats -> { open, overdue, done, total } for the dashboard cards.
module.exports = function statsHandler(req, res) {
  res.json(computeStats(req.user));
};
