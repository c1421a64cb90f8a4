// Whether a process id names a running process: stale temp files and locks carry their writer's pid.

/** EPERM means the process exists but belongs to someone else: alive. */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
