import { FormEvent, useState } from "react";

import { signUpForNewsletter } from "../api";

/** The footer's newsletter form: after sending, the customer must confirm from the e-mail (double opt-in). */
export function NewsletterSignup() {
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    await signUpForNewsletter(email);
    setSent(true);
  }

  if (sent) return <p>Almost done: please confirm the link we just e-mailed you.</p>;
  return (
    <form onSubmit={submit}>
      <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <button type="submit">Subscribe</button>
    </form>
  );
}
