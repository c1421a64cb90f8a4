import Database from 'better-sqlite3';
import fs from 'node:fs';
import { execSync } from 'node:child_process';
const f = `/tmp/sigbus.sqlite`; for (const s of ['','-wal','-shm']) { try { execSync(`chattr -i ${f+s} 2>/dev/null`); } catch {} fs.rmSync(f+s,{force:true}); }
const db = new Database(f); db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE u (k TEXT PRIMARY KEY, n INTEGER)'); db.exec("INSERT INTO u VALUES ('a',0)");
const st = db.prepare("UPDATE u SET n = n + 1 WHERE k = 'a'");
for (let i=0;i<100;i++) st.run();
execSync(`sync; chattr +i ${f}-shm`);
const mode = process.argv[2];
if (mode === 'reopen') {
  try { const d2 = new Database(f); d2.pragma('busy_timeout=100'); console.log(d2.prepare('SELECT * FROM u').get()); d2.prepare("UPDATE u SET n = n + 1").run(); console.log('write ok'); } catch (e) { console.log('reopen err', e.code, e.message); }
}
if (mode === 'close') { try { db.close(); console.log('closed'); } catch (e) { console.log('close err', e.code); } }
console.log('exiting');
process.exit(0);
