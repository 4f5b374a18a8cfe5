// An extension needs no background work for hybridmind; this service worker only gives tests the extension id.
self.addEventListener('install', () => self.skipWaiting());
