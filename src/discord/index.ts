export { startDiscordBridge, createDiscordClient, DiscordBridge, BRIDGE_INTENTS, type DiscordBridgeHandle, type DiscordBridgeOptions } from './bridge.js';
