// Source 1: the Hugging Face hub. Xenova/all-MiniLM-L6-v2 already has the transformers.js layout; the
// sentence-transformers repo adds model.safetensors for the reference test. Timeouts are short: on an
// offline machine the probe must fail within seconds, not hang.
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const CONNECT_TIMEOUT_MS = 5_000;
const IDLE_TIMEOUT_MS = 20_000;
const ATTEMPTS = 2;

const ONNX_REPO = 'Xenova/all-MiniLM-L6-v2';
const WEIGHTS_REPO = 'sentence-transformers/all-MiniLM-L6-v2';
const FILES = [
  [ONNX_REPO, 'config.json'],
  [ONNX_REPO, 'tokenizer.json'],
  [ONNX_REPO, 'tokenizer_config.json'],
  [ONNX_REPO, 'onnx/model.onnx'],
  [ONNX_REPO, 'onnx/model_quantized.onnx'],
  [WEIGHTS_REPO, 'model.safetensors'],
];

function endpoint() {
  return (process.env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, '');
}

/** Streams one file to disk; aborts if the headers take longer than 5 s or the body stalls for 20 s. */
async function download(url, dest) {
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
  try {
    const res = await fetch(url, { signal: controller.signal, redirect: 'follow' });
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new Error(`stalled for ${IDLE_TIMEOUT_MS} ms`)), IDLE_TIMEOUT_MS);
    };
    arm();
    await mkdir(dirname(dest), { recursive: true });
    await pipeline(
      Readable.fromWeb(res.body),
      async function* rearm(chunks) {
        for await (const chunk of chunks) {
          arm();
          yield chunk;
        }
      },
      createWriteStream(dest),
    );
  } catch (err) {
    const reason = controller.signal.aborted ? controller.signal.reason : err;
    throw new Error(`${url}: ${reason?.cause?.message ?? reason?.message ?? reason}`);
  } finally {
    clearTimeout(timer);
  }
}

async function downloadWithRetry(url, dest, attempts) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await download(url, dest);
    } catch (err) {
      if (attempt >= attempts) throw err;
    }
  }
}

/**
 * Downloads the hub files into `dir`. The first file is a one-attempt probe so that an unreachable hub
 * costs ~5 s. Throws with the failing URL.
 */
export async function fetchFromHub(dir, log) {
  for (const [index, [repo, file]] of FILES.entries()) {
    const url = `${endpoint()}/${repo}/resolve/main/${file}`;
    await downloadWithRetry(url, join(dir, file), index === 0 ? 1 : ATTEMPTS);
    if (index === 0) log(`hub reachable at ${endpoint()}, downloading`);
  }
  await patchTokenizer(dir);
}

/** Same patch as convert.py: sentence-transformers truncates at 256 tokens and pads per batch. */
export async function patchTokenizer(dir, maxLength = 256) {
  const cfgPath = join(dir, 'tokenizer_config.json');
  const cfg = JSON.parse(await readFile(cfgPath, 'utf8'));
  cfg.model_max_length = maxLength;
  await writeFile(cfgPath, `${JSON.stringify(cfg, null, 2)}\n`);
  const tokPath = join(dir, 'tokenizer.json');
  const tok = JSON.parse(await readFile(tokPath, 'utf8'));
  tok.padding = null;
  tok.truncation = { direction: 'Right', max_length: maxLength, strategy: 'LongestFirst', stride: 0 };
  await writeFile(tokPath, JSON.stringify(tok));
}
