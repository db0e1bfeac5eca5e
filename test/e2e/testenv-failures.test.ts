// How startControlPlane fails: a process that dies while starting is named in the error
// together with the tail of its log, nothing is left running or on disk, and a start
// that lost its port to another process is retried on a fresh one. Uses the real etcd
// next to stand-in scripts for the process that is meant to misbehave.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { useScratchDir } from '../../src/lib/scratch-dir.ts';
import { ensureBinaries } from '../../src/testenv/build.ts';
import { startControlPlane } from '../../src/testenv/index.ts';

async function script(dir: string, name: string, body: string): Promise<void> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
}

describe('testenv: failing starts', () => {
  let realBin: string;
  const scratch = useScratchDir('convoy-testenv-fakes-');

  before(async () => {
    realBin = await ensureBinaries();
  });

  it('reports a process that exits while starting, with its log tail, and cleans up', async () => {
    const bin = join(scratch(), 'apiserver-dies');
    await mkdir(bin);
    await symlink(join(realBin, 'etcd'), join(bin, 'etcd'));
    await script(
      bin,
      'kube-apiserver',
      'echo "starting a kube-apiserver that crashes on start"\necho "E0000 fatal: the flux capacitor is gone" >&2\nexit 3',
    );

    let logPath = '';
    await assert.rejects(startControlPlane({ binDir: bin }), (err: Error) => {
      assert.equal(err.name, 'ProcessExitedError');
      assert.match(err.message, /kube-apiserver \(pid \d+\) exited with code 3/);
      assert.match(err.message, /the flux capacitor is gone/, 'the log tail is in the message');
      logPath = err.message.match(/lines of (\S+kube-apiserver\.log)/)?.[1] ?? '';
      return true;
    });
    assert.match(logPath, /convoy-testenv-/, 'the message names the log file');
    assert.equal(existsSync(dirname(dirname(logPath))), false, 'the temp dir of the failed start is removed');
  });

  it('retries on a fresh port when the chosen one was taken in the meantime', async () => {
    const bin = join(scratch(), 'etcd-port-taken');
    await mkdir(bin);
    const counter = join(scratch(), 'etcd-starts');
    // The first start fails the way etcd does when its port is taken; later ones are real.
    await script(
      bin,
      'etcd',
      [
        `n=$(cat ${counter} 2>/dev/null || echo 0)`,
        `echo $((n+1)) > ${counter}`,
        'if [ "$n" -eq 0 ]; then echo \'{"level":"fatal","msg":"listen tcp 127.0.0.1:1: bind: address already in use"}\'; exit 1; fi',
        `exec ${join(realBin, 'etcd')} "$@"`,
      ].join('\n'),
    );
    await symlink(join(realBin, 'kube-apiserver'), join(bin, 'kube-apiserver'));

    const cp = await startControlPlane({ binDir: bin });
    try {
      const core = cp.kubeConfig.makeApiClient(CoreV1Api);
      const ns = await core.readNamespace({ name: 'default' });
      assert.equal(ns.metadata?.name, 'default');
      assert.equal((await readFile(counter, 'utf8')).trim(), '2', 'etcd was started twice');
    } finally {
      await cp.stop();
    }
  });
});
