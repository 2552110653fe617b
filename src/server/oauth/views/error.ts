import { messagePage } from '../../web/html.js';

/** An authorization error shown as a page: the redirect URI is not trusted enough to carry it. */
export const errorPage = (title: string, message: string) =>
  messagePage(400, title, `${message} For your safety you are not sent back to the application.`);
