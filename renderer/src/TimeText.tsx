import { parseApiDateTime } from "../../shared/datetime.ts";
import { formatLocal, formatRelative } from "./time.ts";

/**
 * A time as every view writes it: relative ("2 min ago") or local, the local time with its zone
 * on hover, the instant in `dateTime` for machines; an unreadable text is shown as it came.
 */
export function TimeText(props: { at: string | number; now?: number; relative?: boolean; testId?: string }) {
  const time = typeof props.at === "number" ? props.at : parseApiDateTime(props.at);
  if (time === null) return <span data-testid={props.testId}>{String(props.at)}</span>;
  const local = formatLocal(time);
  return (
    <time dateTime={new Date(time).toISOString()} title={local} data-testid={props.testId}>
      {props.relative ? formatRelative(time, props.now ?? Date.now()) : local}
    </time>
  );
}
