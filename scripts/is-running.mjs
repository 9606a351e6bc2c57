// Whether a process of this machine still runs: for outputs named after the process that made them
// (half-made dist/ builds, a test run's template database), which may go once it is gone.
export function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // It exists, but belongs to another user.
    return err.code === 'EPERM';
  }
}
