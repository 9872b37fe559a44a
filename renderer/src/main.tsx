import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BridgeFailure, useBridgeEvents, useKeys, useServiceStatus } from "./bridgeHooks.ts";

// A minimal page: the service status and the keys of the active profile's own account.
// (The key administration UI comes with its own issue.)

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });

function errorText(error: unknown): string {
  return error instanceof BridgeFailure ? `${error.error.messageId}: ${error.error.text}` : String(error);
}

function ServiceStatus() {
  const status = useServiceStatus();
  if (status.isPending) {
    return <p>Checking the key service…</p>;
  }
  if (status.isError) {
    return <p role="alert">{errorText(status.error)}</p>;
  }
  const s = status.data;
  return (
    <section aria-label="Service status" data-testid="service-status">
      <p>
        Key service: {s.running ? `running at ${s.baseUrl}` : "stopped"}
        {s.portChanged ? ` (the remembered port was taken, so it uses port ${s.port})` : ""}
      </p>
      <p>
        Credentials:{" "}
        {s.keychain === "os"
          ? "kept in the OS keychain"
          : `kept for this session only: ${s.keychainUnavailableReason ?? "no OS keychain is available"}`}
      </p>
    </section>
  );
}

function KeyList() {
  const keys = useKeys();
  if (keys.isPending) {
    return <p>Loading keys…</p>;
  }
  if (keys.isError) {
    return <p role="alert">{errorText(keys.error)}</p>;
  }
  return (
    <section aria-label="API keys">
      <h2>API keys</h2>
      {keys.data.length === 0 ? (
        <p data-testid="key-list-empty">No API keys yet.</p>
      ) : (
        <table data-testid="key-list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Public API key</th>
              <th>Permissions</th>
              <th>Enabled</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((key) => (
              <tr key={key.key}>
                <td>{key.name}</td>
                <td>
                  <code>{key.publicApiKeyHint}</code>
                </td>
                <td>{key.permissions.join(", ")}</td>
                <td>{key.enabled ? "yes" : "no"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function App() {
  useBridgeEvents();
  return (
    <main>
      <h1>Keydesk</h1>
      <ServiceStatus />
      <KeyList />
    </main>
  );
}

const container = document.getElementById("root");
if (container === null) {
  throw new Error('Keydesk: index.html has no element with id "root"');
}

createRoot(container).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
