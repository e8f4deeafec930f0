// Vitest puts Vite's import.meta.env on process.env: BASE_URL "/" among them. BASE_URL is also Portico's
// own variable, and the processes a test starts inherit process.env, so Vite's value is dropped here.
if (process.env.BASE_URL === '/') delete process.env.BASE_URL;
