export type { KyselyRoomStoreOptions } from './kysely-room-store.js';
export { createKyselyRoomStore, UNIFIED_ROOM_TITLE } from './kysely-room-store.js';
export type { RoomRoutesOptions } from './room-routes.js';
export { createRoomRoutes } from './room-routes.js';
