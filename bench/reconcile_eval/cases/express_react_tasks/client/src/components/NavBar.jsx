import { NavLink } from 'react-router-dom';
import { useAuth } from '../auth/AuthContext';
import ThemeToggle from './ThemeToggle';

const linkClass = ({ isActive }) => (isActive ? 'nav-link active' : 'nav-link');

export default function NavBar() {
  const { user, logout } = useAuth();
  return (
    <header className="navbar">
      <span className="brand">Taskboard</span>
      {user && (
        <nav>
          <NavLink to="/" end className={linkClass}>Dashboard</NavLink>
          <NavLink to="/tasks" className={linkClass}>Tasks</NavLink>
          <NavLink to="/board" className={linkClass}>Board</NavLink>
          <NavLink to="/projects" className={linkClass}>Projects</NavLink>
        </nav>
      )}
      <div className="navbar-right">
        <ThemeToggle />
        {user ? (
          <>
            <NavLink to="/settings/profile" className={linkClass}>
              {user.avatarUrl && <img className="avatar" src={user.avatarUrl} alt="" />}
              {user.name}
            </NavLink>
            <button type="button" className="link" onClick={logout}>Log out</button>
          </>
        ) : (
          <NavLink to="/login" className={linkClass}>Log in</NavLink>
        )}
      </div>
    </header>
  );
}
