import { Notification } from "electron";
import type { NotifierPort } from "./corePorts.ts";

/** The system's notifications through Electron (shown by main: the renderer may not ask for them). */
export const desktopNotifier: NotifierPort = {
  isSupported: () => Notification.isSupported(),
  show: ({ title, body }) => new Notification({ title, body }).show(),
};
