import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../api';
import { useAuth } from '../auth/AuthContext';
import StatsCards from '../components/StatsCards';

export default function DashboardPage() {
  const { user } = useAuth();
  const [stats, setStats] = useState(null);

  useEffect(() => {
    api('/stats').then(setStats);
  }, []);

  return (
    <section className="dashboard">
      <h1>Hello, {user.name}</h1>
      <StatsCards stats={stats} />
      {stats?.overdue > 0 && (
        <p className="hint">
          You have {stats.overdue} overdue {stats.overdue === 1 ? 'task' : 'tasks'}. <Link to="/tasks">Review them</Link>
        </p>
      )}
    </section>
  );
}
