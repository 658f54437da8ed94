import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { useAuth } from '../auth/AuthContext';

export default function SignupPage() {
  const { signup } = useAuth();
  const navigate = useNavigate();
  const [form, setForm] = useState({ name: '', email: '', password: '', repeatPassword: '' });
  const [error, setError] = useState(null);

  const update = (key) => (e) => setForm({ ...form, [key]: e.target.value });

  async function handleSubmit(e) {
    e.preventDefault();
    if (form.password !== form.repeatPassword) {
      setError('The two passwords do not match');
      return;
    }
    try {
      await signup({ name: form.name, email: form.email, password: form.password });
      navigate('/', { replace: true });
    } catch (err) {
      setError(err.message);
    }
  }

  return (
    <form className="auth-form" onSubmit={handleSubmit}>
      <h1>Create your account</h1>
      <label>Name<input value={form.name} onChange={update('name')} required /></label>
      <label>Email<input type="email" value={form.email} onChange={update('email')} required /></label>
      <label>Password<input type="password" minLength={8} value={form.password} onChange={update('password')} required /></label>
      <label>Repeat password<input type="password" value={form.repeatPassword} onChange={update('repeatPassword')} required /></label>
      {error && <p role="alert" className="error">{error}</p>}
      <button type="submit">Sign up</button>
      <p>Already have an account? <Link to="/login">Sign in</Link></p>
    </form>
  );
}
