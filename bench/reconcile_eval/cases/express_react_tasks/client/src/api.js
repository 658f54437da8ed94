const TOKEN_KEY = 'taskboard.token';

export const tokenStore = {
  get: () => localStorage.getItem(TOKEN_KEY),
  set: (token) => localStorage.setItem(TOKEN_KEY, token),
  clear: () => localStorage.removeItem(TOKEN_KEY),
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error || `Request failed (${status})`);
    this.status = status;
    this.details = body?.details;
  }
}

export async function api(path, { method = 'GET', body } = {}) {
  const headers = { 'Content-Type': 'application/json' };
  const token = tokenStore.get();
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`/api${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  if (res.status === 204) return null;
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export const tasksApi = {
  list: () => api('/tasks'),
  get: (id) => api(`/tasks/${id}`),
  create: (task) => api('/tasks', { method: 'POST', body: task }),
  update: (id, patch) => api(`/tasks/${id}`, { method: 'PATCH', body: patch }),
  remove: (id) => api(`/tasks/${id}`, { method: 'DELETE' }),
  addLabel: (id, label) => api(`/tasks/${id}/labels`, { method: 'POST', body: { label } }),
  removeLabel: (id, label) => api(`/tasks/${id}/labels/${encodeURIComponent(label)}`, { method: 'DELETE' }),
  assign: (id, assigneeId) => api(`/tasks/${id}/assign`, { method: 'PATCH', body: { assigneeId } }),
  comments: (id) => api(`/tasks/${id}/comments`),
  addComment: (id, body) => api(`/tasks/${id}/comments`, { method: 'POST', body: { body } }),
};
