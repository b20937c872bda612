// A sixtysix ONNX policy in JavaScript with onnxruntime-web (docs/onnx.md).
//
//   python -m sixtysix_env.policy.onnx sixtysix-ppo-v4 -o v4.onnx
//   cd examples/onnx/js && npm install
//   node play.mjs ../../../v4.onnx ../positions.json
//
// The same code runs in a page: give InferenceSession.create the model's bytes
// (await (await fetch("v4.onnx")).arrayBuffer()) or its URL. In Node, onnxruntime-node
// has the same API (import * as ort from "onnxruntime-node").
import { readFile } from "node:fs/promises";
import * as ort from "onnxruntime-web";

const OBS_SIZE = 349;
const NUM_ACTIONS = 34;

// One decision per row: obs is 349 numbers per position, legal 34 booleans per position.
export async function choose(session, observations, legalMasks) {
  const n = observations.length;
  const obs = new Float32Array(n * OBS_SIZE);
  const mask = new Uint8Array(n * NUM_ACTIONS); // the bool input: 1 = legal
  observations.forEach((o, i) => obs.set(o, i * OBS_SIZE));
  legalMasks.forEach((m, i) => mask.set(m.map((x) => (x ? 1 : 0)), i * NUM_ACTIONS));
  const out = await session.run({
    obs: new ort.Tensor("float32", obs, [n, OBS_SIZE]),
    mask: new ort.Tensor("bool", mask, [n, NUM_ACTIONS]),
  });
  // logits: Float32Array [n * 34], -Infinity where illegal; action: BigInt64Array [n]
  return { logits: out.logits.data, actions: Array.from(out.action.data, Number) };
}

async function main([modelPath, positionsPath]) {
  if (!modelPath || !positionsPath) {
    console.error("usage: node play.mjs MODEL.onnx positions.json");
    return 2;
  }
  ort.env.wasm.numThreads = 1;
  const session = await ort.InferenceSession.create(await readFile(modelPath));
  const { positions, policy } = JSON.parse(await readFile(positionsPath, "utf8"));
  const { logits, actions } = await choose(
    session,
    positions.map((p) => p.obs),
    positions.map((p) => p.mask.map(Boolean)),
  );
  let same = 0;
  positions.forEach((p, i) => {
    let worst = 0; // the largest logit difference over the legal moves
    p.logits.forEach((want, a) => {
      if (want !== null) worst = Math.max(worst, Math.abs(logits[i * NUM_ACTIONS + a] - want));
    });
    const ok = actions[i] === p.action;
    same += ok;
    console.log(
      `${p.shows}: played ${actions[i]} (${p.action_name} expected) ${ok ? "ok" : "DIFFERENT"},` +
        ` legal logits within ${worst.toExponential(1)}`,
    );
  });
  console.log(`${same} of ${positions.length} moves as ${policy} plays them`);
  return same === positions.length ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
