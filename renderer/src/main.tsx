import "@mantine/core/styles.css";
import "@mantine/charts/styles.css";
import "@mantine/dates/styles.css";
import "@mantine/notifications/styles.css";
import "./app.css";
import { MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { AfterFirstPaint } from "./AfterFirstPaint.tsx";
import { App } from "./App.tsx";
import { prefetchFirstView } from "./firstView.ts";
import { cssVariablesResolver, theme } from "./theme.ts";

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

const container = document.getElementById("root");
if (container === null) {
  throw new Error('Keydesk: index.html has no element with id "root"');
}

const root = createRoot(container);
void prefetchFirstView(queryClient).then(() =>
  root.render(
    <StrictMode>
      <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto">
        <AfterFirstPaint>
          <Notifications position="bottom-right" />
        </AfterFirstPaint>
        <QueryClientProvider client={queryClient}>
          <App />
        </QueryClientProvider>
      </MantineProvider>
    </StrictMode>,
  ),
);
