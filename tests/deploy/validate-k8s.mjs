// Every Kubernetes object in deploy/k8s validated against the API's JSON schemas
// (kubernetes-models ships them), and a few facts the deployment relies on.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";

const top = path.resolve(new URL("../..", import.meta.url).pathname);
const dir = path.join(top, "deploy/k8s");
let bad = 0, count = 0;
const seen = {};
for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml")).sort()) {
  for (const doc of parseAllDocuments(readFileSync(path.join(dir, file), "utf8"))) {
    if (doc.errors.length) {
      console.error(`${file}: YAML: ${doc.errors[0].message}`);
      bad++;
      continue;
    }
    const obj = doc.toJS();
    if (!obj) continue;
    const [group, version] = obj.apiVersion.includes("/") ? obj.apiVersion.split("/") : ["", obj.apiVersion];
    const modPath = `kubernetes-models/${group ? `${group}/` : ""}${version}/${obj.kind}`;
    try {
      const mod = await import(modPath);
      const Model = mod[obj.kind] ?? mod.default;
      new Model(obj).validate();
      console.log(`ok ${file}: ${obj.kind} ${obj.metadata.name}`);
      seen[`${obj.kind}/${obj.metadata.name}`] = obj;
      count++;
    } catch (e) {
      console.error(`${file}: ${obj.kind} ${obj.metadata?.name}: ${e.message}`);
      bad++;
    }
  }
}
function need(cond, what) {
  if (!cond) {
    console.error(`deploy/k8s: ${what}`);
    bad++;
  } else console.log(`ok ${what}`);
}
const sts = seen["StatefulSet/rodd"];
need(sts, "a StatefulSet rodd");
if (sts) {
  const c = sts.spec.template.spec.containers[0];
  need(sts.spec.volumeClaimTemplates?.length === 1, "a PersistentVolumeClaim per pod for checkpoints");
  need(c.livenessProbe?.httpGet?.path === "/livez", "liveness on /livez");
  need(c.readinessProbe?.httpGet?.path === "/readyz", "readiness on /readyz");
  need(c.lifecycle?.preStop?.exec, "a preStop that drains");
  need(c.resources?.requests?.cpu && c.resources?.requests?.memory, "resource requests");
  need(c.env.some((e) => e.name === "RODD_TOKENS_FILE"), "tokens from the Secret");
  need(sts.spec.template.spec.securityContext?.runAsNonRoot === true, "runs as non-root");
  // the state volume holds the recordings' budget, the checkpoints (2 MiB a session: one and
  // its temporary copy) and one export's temporary file (a recording at the default 256 MiB)
  const env = Object.fromEntries(c.env.map((e) => [e.name, e.value]));
  const MiB = 1 << 20;
  const unit = { "": 1, Ki: 1024, Mi: MiB, Gi: 1024 * MiB, Ti: 1024 * 1024 * MiB };
  const bytes = (q) => {
    const m = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(String(q));
    return m ? Number(m[1]) * unit[m[2] ?? ""] : NaN;
  };
  const budget = Number(env.RODD_RECORDING_BUDGET), sessions = Number(env.RODD_MAX_SESSIONS ?? 64);
  const volume = bytes(sts.spec.volumeClaimTemplates?.[0]?.spec.resources.requests.storage);
  need(budget > 0, "a recording budget (RODD_RECORDING_BUDGET) for the state volume");
  need(volume >= 1.05 * (budget + sessions * 2 * MiB + 256 * MiB),
    `the state volume (${volume / MiB} MiB) holds the recording budget (${budget / MiB} MiB), ${sessions} checkpoints and an export, with 5% to spare`);
}
// hardened pods: no privilege escalation, no capabilities, a read-only root, the runtime's
// seccomp profile, a versioned image
for (const [name, obj] of [["the daemon", sts], ["the sweep", seen["Job/rodd-sweep"]]]) {
  const pod = obj?.spec.template.spec;
  for (const c of pod?.containers ?? []) {
    const sc = c.securityContext ?? {};
    need(sc.allowPrivilegeEscalation === false, `${name}: allowPrivilegeEscalation false`);
    need(JSON.stringify(sc.capabilities?.drop) === '["ALL"]', `${name}: every capability dropped`);
    need(sc.readOnlyRootFilesystem === true, `${name}: a read-only root filesystem`);
    need(/:[0-9]+\.[0-9]+\.[0-9]+$/.test(c.image), `${name}: a versioned image tag (${c.image})`);
  }
  need(pod?.securityContext?.seccompProfile?.type === "RuntimeDefault", `${name}: seccomp RuntimeDefault`);
}
need(seen["Service/rodd"] && seen["Service/rodd-pods"]?.spec.clusterIP === "None", "a Service and a headless one per pod");
need(seen["Service/rodd-pods"]?.spec.publishNotReadyAddresses === true,
  "a full (not ready) pod keeps its DNS name, so its sessions stay reachable");
need(seen["Secret/rodd-tokens"], "a Secret for tokens");
const job = seen["Job/rodd-sweep"];
need(job?.spec.completionMode === "Indexed" && /--index "\$JOB_COMPLETION_INDEX"/.test(job.spec.template.spec.containers[0].args[0]),
  "the sweep is an Indexed Job running rodd sweep --index");
console.log(`${count} objects checked, ${bad} problems`);
process.exit(bad ? 1 : 0);
