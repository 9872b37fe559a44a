import { createTheme, Modal, Notification } from "@mantine/core";

/**
 * Mantine's defaults with darker shades where the default ones miss WCAG AA contrast (white
 * text on blue.6, dimmed text), and a labelled close button on every dialog and notification.
 */
export const theme = createTheme({
  primaryColor: "blue",
  primaryShade: { light: 8, dark: 8 },
  components: {
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { "aria-label": "Close dialog" } } }),
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { "aria-label": "Close notification" } },
    }),
  },
});
