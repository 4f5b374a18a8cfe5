# Local workerd config for the example: `node build.mjs` in this folder (it also creates ./data), then
#   npx workerd serve config.capnp
# serves http://127.0.0.1:8787 with Durable Object SQLite kept on disk in ./data.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # Durable Object storage: one SQLite file per object under this directory (-d do-storage=<dir> overrides).
    (name = "do-storage", disk = (path = "data", writable = true)),
    # An OpenAI-compatible embeddings server, if you have one (-e embeddings=<host:port> overrides).
    (name = "embeddings", external = (address = "127.0.0.1:8080", http = ())),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  compatibilityDate = "2025-09-01",
  modules = [
    (name = "worker.js", esModule = embed "dist/worker.js"),
    (name = "kernel.wasm", wasm = embed "dist/kernel.wasm"),
  ],
  durableObjectNamespaces = [(className = "MemoryObject", uniqueKey = "hybridmind-memory", enableSql = true)],
  durableObjectStorage = (localDisk = "do-storage"),
  bindings = [
    (name = "MEMORY", durableObjectNamespace = "MemoryObject"),
    (name = "EMBEDDINGS", service = "embeddings"),
    # Comment this out to run without an embedder (then send "embedding" and "queryEmbedding" yourself).
    (name = "EMBEDDINGS_URL", text = "http://embeddings.local/v1"),
    (name = "EMBEDDINGS_MODEL", text = "all-MiniLM-L6-v2"),
    # Known up front, so a memory opens (and answers stats, export, lexical recall) while the server is down.
    (name = "EMBEDDINGS_DIM", text = "384"),
  ],
);
