import { notifications } from "@mantine/notifications";
import { errorText } from "../../bridgeHooks.ts";

/** An onError handler: a red notification titled `title` saying what went wrong. */
export function failed(title: string) {
  return (error: unknown) => notifications.show({ color: "red", title, message: errorText(error) });
}
