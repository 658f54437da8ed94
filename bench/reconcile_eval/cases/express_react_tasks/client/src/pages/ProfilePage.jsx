import { useState } from 'react';
import { api } from '../api';
import { useAuth } from '../auth/AuthContext';

export default function ProfilePage() {
  const { user, setUser } = useAuth();
  const [name, setName] = useState(user.name);
  const [avatarUrl, setAvatarUrl] = useState(user.avatarUrl || '');
  const [status, setStatus] = useState(null);

  async function save(e) {
    e.preventDefault();
    try {
      const updated = await api('/users/me', { method: 'PUT', body: { name, avatarUrl: avatarUrl || null } });
      setUser(updated);
      setStatus({ ok: true, text: 'Profile saved' });
    } catch (err) {
      setStatus({ ok: false, text: err.message });
    }
  }

  return (
    <form className="profile" onSubmit={save}>
      <h1>Your profile</h1>
      {avatarUrl && <img className="avatar large" src={avatarUrl} alt="Avatar preview" />}
      <label>Email<input value={user.email} readOnly /></label>
      <label>Name<input value={name} onChange={(e) => setName(e.target.value)} maxLength={80} /></label>
      <label>
        Avatar URL
        <input type="url" value={avatarUrl} onChange={(e) => setAvatarUrl(e.target.value)} placeholder="https://…" />
      </label>
      <button type="submit">Save</button>
      {status && <p role={status.ok ? 'status' : 'alert'}>{status.text}</p>}
    </form>
  );
}
