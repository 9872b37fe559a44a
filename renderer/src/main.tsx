import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

const queryClient = new QueryClient();

const container = document.getElementById("root");
if (container === null) {
  throw new Error('Keydesk: index.html has no element with id "root"');
}

createRoot(container).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <main>
        <h1>Keydesk</h1>
        <p>The list of API keys comes later.</p>
      </main>
    </QueryClientProvider>
  </StrictMode>,
);
