import * as lua from './lua';
import { LuaScript } from './scripts';

/** The engine's Lua scripts, loaded once per process. */
export const SCRIPTS = {
  submit: new LuaScript(lua.SUBMIT),
  claim: new LuaScript(lua.CLAIM),
  unclaim: new LuaScript(lua.UNCLAIM),
  retire: new LuaScript(lua.RETIRE),
  complete: new LuaScript(lua.COMPLETE),
  cancel: new LuaScript(lua.CANCEL),
  retry: new LuaScript(lua.RETRY),
  setTtl: new LuaScript(lua.SET_TTL),
  append: new LuaScript(lua.APPEND_STREAM),
  drain: new LuaScript(lua.DRAIN_STREAM),
  stops: new LuaScript(lua.DRAIN_STOPS),
  heartbeat: new LuaScript(lua.HEARTBEAT),
  purge: new LuaScript(lua.PURGE),
};
