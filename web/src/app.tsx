import { Center, Loader } from '@mantine/core';
import { lazy, Suspense, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router-dom';
import { AppLayout } from './layout/app-layout';
import { AuthPage } from './pages/auth-page';
import { KeysPage } from './pages/keys-page';
import { CustomModelsPage } from './pages/custom-models-page';
import { MembersPage } from './pages/members-page';
import { NotFoundPage } from './pages/not-found-page';
import { PlaygroundPage } from './pages/playground-page';
import { ProvidersPage } from './pages/providers-page';
import { RouterDetailPage } from './pages/router-detail-page';
import { RouterEditPage, RouterNewPage } from './pages/router-form-page';
import { RoutersPage } from './pages/routers-page';
import { VerifyPage } from './pages/verify-page';
import { SessionProvider } from './session/session-context';

// Charts (recharts) are the heaviest part of the app: only pages that plot load them.
const UsagePage = lazy(() => import('./pages/usage-page').then((module) => ({ default: module.UsagePage })));
const RequestDetailPage = lazy(() => import('./pages/request-detail-page').then((module) => ({ default: module.RequestDetailPage })));
const AgentsPage = lazy(() => import('./pages/agents-page').then((module) => ({ default: module.AgentsPage })));
const AgentNewPage = lazy(() => import('./pages/agents-page').then((module) => ({ default: module.AgentNewPage })));
const AgentDetailPage = lazy(() => import('./pages/agents-page').then((module) => ({ default: module.AgentDetailPage })));
const AgentEditPage = lazy(() => import('./pages/agents-page').then((module) => ({ default: module.AgentEditPage })));
const ExecutionPage = lazy(() => import('./pages/agents-page').then((module) => ({ default: module.ExecutionPage })));

const lazyPage = (page: ReactNode) => (
  <Suspense
    fallback={
      <Center py="xl">
        <Loader aria-label="Loading" />
      </Center>
    }
  >
    {page}
  </Suspense>
);

export function App() {
  return (
    <BrowserRouter>
      <SessionProvider>
        <Routes>
          <Route path="/signin" element={<AuthPage mode="signin" />} />
          <Route path="/signup" element={<AuthPage mode="signup" />} />
          <Route path="/signup/verify" element={<VerifyPage />} />
          <Route element={<AppLayout />}>
            <Route index element={<Navigate to="/routers" replace />} />
            <Route path="/routers" element={<RoutersPage />} />
            <Route path="/routers/new" element={<RouterNewPage />} />
            <Route path="/routers/:id" element={<RouterDetailPage />} />
            <Route path="/routers/:id/edit" element={<RouterEditPage />} />
            <Route path="/usage" element={lazyPage(<UsagePage />)} />
            <Route path="/usage/requests/:id" element={lazyPage(<RequestDetailPage />)} />
            <Route path="/playground" element={<PlaygroundPage />} />
            <Route path="/settings" element={<Navigate to="/settings/keys" replace />} />
            <Route path="/settings/keys" element={<KeysPage />} />
            <Route path="/settings/members" element={<MembersPage />} />
            <Route path="/settings/providers" element={<ProvidersPage />} />
            <Route path="/settings/models" element={<CustomModelsPage />} />
            <Route path="/agents" element={lazyPage(<AgentsPage />)} />
            <Route path="/agents/new" element={lazyPage(<AgentNewPage />)} />
            <Route path="/agents/:name" element={lazyPage(<AgentDetailPage />)} />
            <Route path="/agents/:name/edit" element={lazyPage(<AgentEditPage />)} />
            <Route path="/executions/:id" element={lazyPage(<ExecutionPage />)} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </SessionProvider>
    </BrowserRouter>
  );
}
