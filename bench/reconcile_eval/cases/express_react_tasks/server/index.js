const config = require('./config');
const { createApp } = require('./app');

const app = createApp();
app.listen(config.port, () => {
  console.log(`taskboard api listening on :${config.port}`);
});
