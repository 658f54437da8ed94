import { useTheme } from '../theme/ThemeContext';

export default function ThemeToggle() {
  const { theme, toggleTheme } = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button type="button" className="theme-toggle" onClick={toggleTheme} aria-label={`Switch to ${next} theme`}>
      {theme === 'dark' ? '☀︎' : '☾'}
    </button>
  );
}
